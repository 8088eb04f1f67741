"""``veracity label``: a review page that turns a run into people's labels, appended to a
labels file that ``veracity agree`` and ``veracity calibrate`` read.

The web stack (Starlette, uvicorn, Jinja2) is the ``label`` extra; only
:mod:`veracity.review.app` imports it.
"""
