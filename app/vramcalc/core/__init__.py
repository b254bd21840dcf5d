"""The words every layer shares: units, numeric formats, choices, errors. Imports nothing above it."""
