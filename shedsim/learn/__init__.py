"""A learned evaluation for the search: features of a position, a small value model's
compiled forward pass, the self-play data it is trained on, and its training.

* :mod:`shedsim.learn.value`: the features of a determinised 2-seat position and the
  compiled forward pass over the committed weights (``value_2p.npz``), which
  :mod:`strategies.ismcts` calls at a leaf instead of (or after part of) a playout;
* :mod:`shedsim.learn.selfplay`: positions and outcomes from compiled self-play of a
  search strategy (champion by default);
* :mod:`shedsim.learn.train`: the fit (scikit-learn, the optional ``learn`` extra) behind
  ``shedsim train``, which writes the weights, the data and the loss curve.
"""
