"""The northwind demo: the scenario format, its loader, the run and the ``graphmem demo``
command."""
