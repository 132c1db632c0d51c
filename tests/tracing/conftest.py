from tests.phoenix_server import phoenix  # noqa: F401  (the session's `phoenix` fixture)
