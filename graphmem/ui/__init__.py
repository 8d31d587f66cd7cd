"""``graphmem ui``: a local web inspector of records, lineage, retrievals and deletions for
one principal (docs/ui.md).

The pages live in :mod:`graphmem.ui.records`, :mod:`graphmem.ui.lineage`,
:mod:`graphmem.ui.retrieval`, :mod:`graphmem.ui.deletion` and :mod:`graphmem.ui.reports`;
:func:`graphmem.ui.app.create_app` wires them (Starlette, uvicorn and Jinja2: the ``ui``
extra). Nothing here is imported by ``import graphmem``.
"""
