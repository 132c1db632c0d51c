"""Pure HTML shared by the app (``answerlens.ui``) and the reports (``answerlens.report``): the one escaping
function, the palette and the one stylesheet, highlight spans, citation marks, badges, notices, tables, trial rows
and SVG charts. Imports no streamlit, plotly or pandas, and neither ``ui`` nor ``report``."""
