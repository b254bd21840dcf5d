"""Strings into a Workload: the only layer that reads text (link, form, command line)."""
