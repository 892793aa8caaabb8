"""Lectures: guided steps through the lesson views.  ``format`` reads a file, ``loading`` checks its
steps against the views at start, ``pages`` serves the lecture pages and their JSON."""

from app.lectures.format import Lecture, LectureError, Step, lookup, show
from app.lectures.loading import SHIPPED_DIR, configured_dirs, lectures, load_dirs, load_file

__all__ = ["SHIPPED_DIR", "Lecture", "LectureError", "Step", "configured_dirs", "lectures", "load_dirs", "load_file", "lookup", "show"]
