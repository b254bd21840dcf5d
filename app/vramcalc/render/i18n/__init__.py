"""The sentence catalogues, one module per language."""
