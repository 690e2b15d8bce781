"""One module per scenario of --only. Each measures on the rig and gives its rows of the table."""
