"""Importing authored modules and checking the definitions they bind."""
