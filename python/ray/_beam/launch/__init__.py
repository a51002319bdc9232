"""The launch layer: find Java and the jar, start or find a daemon (see ray/_beam/__init__.py
for the layers). Imports nothing of the API: the `ray` command loads only this layer."""
