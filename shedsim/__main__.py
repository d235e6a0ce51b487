from shedsim.cli import main

main()
