"""The only package code that imports streamlit or plotly: widgets, highlight HTML, charts."""
