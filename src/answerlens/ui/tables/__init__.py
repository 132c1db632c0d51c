"""Tables the pages share: search, filters, sorting and exports of the visible rows."""
