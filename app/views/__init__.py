"""One module per lesson.  Each module calls ``app.web.views.register`` for its views and may
expose ``router`` (an ``APIRouter``) for API operations that have no page of their own."""
