"""`eve add PACKAGE|PATH [--as NS]`: install an extension into an agent project and mount it."""
