"""The Packing page: one bundle's records in every format, and how a reply's citations fare under each."""
