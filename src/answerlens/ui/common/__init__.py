"""What several pages share: the endpoint panel, the bundle picker, highlight and escaping, exports, runs."""
