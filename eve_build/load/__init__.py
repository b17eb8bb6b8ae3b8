"""Importing authored modules and checking the definitions they bind.

Layer 3 (authored, beside `project` and `source`): may import them, formats and the
foundation.
"""
