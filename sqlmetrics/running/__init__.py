"""What a running call shows and how it stops: the progress line of a long query
(``progress``) and the interruption of one by Ctrl-C or a signal (``interrupt``)."""
