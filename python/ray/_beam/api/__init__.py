"""The API layer: what the public `ray` names are made of (see ray/_beam/__init__.py for
the layers). Uses the wire and launch layers."""
