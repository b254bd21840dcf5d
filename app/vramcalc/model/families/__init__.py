"""Model families, one package each."""
