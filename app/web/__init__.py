"""Web layer: parameter models, the view registry, routes, rendering and headers."""
