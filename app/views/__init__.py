"""One module per lesson.  Each module calls ``app.web.views.register`` for its views; API
operations without a page of their own are ``routes`` of the view they belong to."""
