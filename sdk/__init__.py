"""The writing side of VisualDL: :class:`~visualdl.sdk._writer.LogWriter` and its parts.

``writer`` validates arguments on the caller's thread and delegates; ``convert``
holds the pure conversions (numbers, images, histograms, models); ``sink`` owns the
file, the pending data and the background thread; ``summary`` offers
``torch.utils.tensorboard.SummaryWriter``'s calls over ``LogWriter``.
"""

from visualdl.sdk._summary import SummaryWriter
from visualdl.sdk._writer import LogWriter

__all__ = ["LogWriter", "SummaryWriter"]
