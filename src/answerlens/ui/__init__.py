"""The only package code that imports streamlit, plotly or pandas: one sub-package per page, plus ``common``.

In every sub-package a module whose name ends in ``view`` draws with Streamlit; every other module is pure
(data in, data out) and is unit-tested without Streamlit.
"""
