"""`eve add PACKAGE|PATH [--as NS]`: install an extension into an agent project and mount it.

Layer 4, build side, its top: may import `hatch`, `consumer`, `extension`, `engine`,
`output`, the authored layer, formats and the foundation; never the run side.
"""
