"""Widgets the windows are built from."""
