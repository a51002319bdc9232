"""The wire layer: frames, the connection to a daemon, and error names to exceptions
(see ray/_beam/__init__.py for the layers). Imports nothing of beam above it."""
