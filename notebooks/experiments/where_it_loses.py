"""Where in a deal one player loses to (or gains on) another: let it play only part of each deal.

    python notebooks/experiments/where_it_loses.py koenigrufen                  # the shipped player against pimc
    python notebooks/experiments/where_it_loses.py four_tricks --field random,rules --deals 1000

The measurement (the splits, the stand-in agent, the rows) is :mod:`trickenv.research.where_it_loses`.
"""

from trickenv.research.where_it_loses import main

if __name__ == "__main__":
    main()
