from shedsim.cli import app

app()
