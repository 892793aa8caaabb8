# Positional Encoding Explorer: one small image, stateless, so replicas need no coordination.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv/explorer

# Dependencies first: this layer is rebuilt only when pyproject.toml changes.
COPY pyproject.toml README.md ./
RUN mkdir app && echo '__version__ = "0"' > app/__init__.py \
    && pip install . \
    && pip uninstall -y positional-encoding-explorer \
    && rm -rf app build *.egg-info

COPY app ./app
COPY templates ./templates
COPY static ./static
# Editable on purpose: the app finds templates/ and static/ next to app/ (app/settings.py).
# Bytecode is compiled here, as root, because the non-root user cannot write it at run time.
RUN pip install --no-deps -e . \
    && python -m compileall -q app \
    && useradd --system --uid 10001 --no-create-home explorer

USER explorer
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status == 200 else 1)"

# uvicorn handles SIGTERM with a graceful shutdown (in-flight requests finish, 10 s at most) and
# exits 0; give `docker stop` / Kubernetes a grace period above that (e.g. --stop-timeout 15).
CMD ["python", "-m", "app", "--host", "0.0.0.0", "--port", "8000", "--workers", "2"]
