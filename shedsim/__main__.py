from shedsim.cli import main

if __name__ == "__main__":  # not when a spawned process imports this module as its main
    main()
