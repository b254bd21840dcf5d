"""Results into words, numbers and SVG: the only layer that knows a language."""
