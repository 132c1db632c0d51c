"""Shareable, self-contained HTML reports of an assessment or a trial, for people who will never run the app.

One file: the page (drawn by the app's own renderers, no script, no fetch of any kind) and the data it was
rendered from, embedded as inert JSON. ``verify_report`` re-checks that data and renders it again, so a report
edited by hand, in its data or in its visible text, is caught. Pure: data in, HTML out.
"""
