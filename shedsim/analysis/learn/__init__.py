"""The learned evaluation of the search: the self-play data a value model learns from, and its
training (the model's features and compiled forward pass are the kernel's:
:mod:`shedsim.kernel.value`, over the committed weights ``shedsim/kernel/value_2p.npz``).

* :mod:`shedsim.analysis.learn.selfplay`: positions and outcomes from compiled self-play of a
  search strategy (champion's search by default);
* :mod:`shedsim.analysis.learn.train`: the fit (scikit-learn, the optional ``learn`` extra)
  behind ``shedsim train``, which writes the weights, the data and the loss curve.
"""
