"""Settings for the Memeyori site, read from the environment.

Every helper fails loudly on a value it cannot read, so a typo in production is a crash
at start-up rather than a silently insecure default.
"""

import ipaddress
import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(
        f"{name} must be one of 1/0, true/false, yes/no, on/off; got {raw!r}"
    )


def envint(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer; got {raw!r}") from None


def envfloat(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number; got {raw!r}") from None


def envlist(name: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]


EMAIL_BACKENDS = {
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
    "smtps": "django.core.mail.backends.smtp.EmailBackend",
    "console": "django.core.mail.backends.console.EmailBackend",
    "file": "django.core.mail.backends.filebased.EmailBackend",
    "memory": "django.core.mail.backends.locmem.EmailBackend",
    "dummy": "django.core.mail.backends.dummy.EmailBackend",
}


def envmailer(name: str, default: str) -> dict:
    """One MAILERS entry (Django 6.1) from a URL in the shape dj-email-url reads:
    smtp://user:password@host:587/?tls=1, smtps://... (SSL), console://, file:///dir,
    memory://, dummy://. A dozen lines here rather than a dependency."""
    from urllib.parse import parse_qs, unquote, urlsplit

    raw = os.environ.get(name) or default
    url = urlsplit(raw)
    if url.scheme not in EMAIL_BACKENDS:
        raise ImproperlyConfigured(
            f"{name} must start with one of {', '.join(EMAIL_BACKENDS)}://; got {raw!r}"
        )
    query = {k: v[-1].lower() for k, v in parse_qs(url.query).items()}
    try:
        port = url.port
    except ValueError:
        raise ImproperlyConfigured(f"{name} has a bad port; got {raw!r}") from None
    options: dict = {}
    if url.scheme == "file":
        options["file_path"] = unquote(url.path)
    elif url.scheme.startswith("smtp"):
        options.update(
            host=url.hostname or "localhost",
            port=port,
            username=unquote(url.username or ""),
            password=unquote(url.password or ""),
            use_ssl=url.scheme == "smtps" or query.get("ssl") in {"1", "true"},
            use_tls=query.get("tls") in {"1", "true"},
            timeout=envint("EMAIL_TIMEOUT", 10),
        )
    return {"BACKEND": EMAIL_BACKENDS[url.scheme], "OPTIONS": options}


DEBUG = envbool("DJANGO_DEBUG", True)

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("DJANGO_SECRET_KEY is required when DJANGO_DEBUG is off")
    # Only ever used with debug on, on a developer's own machine.
    SECRET_KEY = "django-insecure-local-development-key-for-memeyori-do-not-deploy"

ALLOWED_HOSTS = envlist("DJANGO_ALLOWED_HOSTS")
if not ALLOWED_HOSTS:
    if not DEBUG:
        raise ImproperlyConfigured("DJANGO_ALLOWED_HOSTS is required when DJANGO_DEBUG is off")
    ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]", "testserver"]

# Where printed cards' QR codes point (issue 34): this site's address as players reach it.
SITE_URL = os.environ.get("DJANGO_SITE_URL", "").rstrip("/")
if not SITE_URL:
    SITE_URL = "http://127.0.0.1:8000" if DEBUG else f"https://{ALLOWED_HOSTS[0]}"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "django_ratelimit",
    "cards",
    "battles",
    # After cards, whose `db_worker` (with a heartbeat, cards/workers.py) replaces this one's.
    "django_tasks_db",
]

# Django's database sessions and ModelBackend, each reading what a logged-in page needs
# (its session, then its user) with a statement compiled once instead of on every request
# (memeyori_site/sessions.py and auth.py say what that saved).
SESSION_ENGINE = "memeyori_site.sessions"
AUTHENTICATION_BACKENDS = ["memeyori_site.auth.UserBackend"]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Before CSRF: its process_view is the first to read a body (memeyori_site/bodies.py).
    "memeyori_site.bodies.BodyLimitMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "memeyori_site.ratelimit.RateLimitMiddleware",
    "memeyori_site.errors.ErrorPagesMiddleware",
]
# A CSRF failure (a form left open past its session) gets the site's page, not Django's.
CSRF_FAILURE_VIEW = "memeyori_site.errors.csrf_failure"

ROOT_URLCONF = "memeyori_site.urls"
WSGI_APPLICATION = "memeyori_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
            ],
        },
    },
]

# No inline script or style without the per-request nonce, and nothing from elsewhere:
# htmx is served from our static files. Style attributes are refused too, so Type
# colours come from /types.css as classes.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:", "blob:"],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=envint("DATABASE_CONN_MAX_AGE", 0),
        # A kept connection is tried (SELECT 1 on PostgreSQL) before a request reuses it,
        # so one the database dropped (a restart) is opened again instead of a 500 (33.4).
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE takes the write lock at BEGIN, and the timeout makes a second writer
    # wait for it instead of failing half-way with "database is locked".
    # WAL lets readers (pages) go on while a writer (a worker storing a render, a rate-limit
    # count) commits, and NORMAL syncs at checkpoints rather than on every commit.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # Tests use a file too, not shared-cache memory, so concurrency tests see real locking.
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / "test-db.sqlite3")}

# Rate limits count in this cache, shared by every worker: the project's database by
# default (`manage.py createcachetable` makes its table; `make run` and `make serve` do),
# Redis when REDIS_URL is set. django-ratelimit warns (W001) that neither is on its short
# list of supported backends; both increment atomically (memeyori_site/cache.py, INCRBY).
REDIS_URL = os.environ.get("REDIS_URL", "")
# Sites (or test runs) sharing one Redis keep apart by prefix.
CACHE_KEY_PREFIX = os.environ.get("DJANGO_CACHE_KEY_PREFIX", "")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            # An unreachable Redis fails fast (issue 40.3) rather than holding a worker; the
            # rate limits then count elsewhere (memeyori_site/ratelimit.py).
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }
else:
    CACHES = {
        "default": {"BACKEND": "memeyori_site.cache.DatabaseCache", "LOCATION": "memeyori_cache"}
    }
CACHES["default"]["KEY_PREFIX"] = CACHE_KEY_PREFIX
# Where rate limits count a write when the default cache is unreachable (Redis down, issue
# 40.3): the database cache's table, which `createcachetable` makes whatever the default.
CACHES["ratelimit_fallback"] = {
    "BACKEND": "memeyori_site.cache.DatabaseCache",
    "LOCATION": "memeyori_cache",
    "KEY_PREFIX": CACHE_KEY_PREFIX,
}
# A stored battle's viewer at one step, rendered, in each web process's memory: a battle's log
# never changes, so a kept step is never stale and no process needs another's copy (the key
# says what else it shows, battles/views.py). Presenter followers and a shared link's
# visitors ask for the same steps. The builder's live panels keep here the parts that show
# only the rules' numbers (derived stats, attack odds, the summary line), under the numbers
# they come from (cards/views/builder.py live_context): no one's data; a character page its
# attributes and stats lists, the same way; every page the site's links in its head and nav
# (templates/base.html). At most 2,000 parts (a viewer step's two are about 7 KB each in the
# demo's battles, the others 0.3-3 KB: at most some 15 MB a process). The dev server empties
# it when a template is edited (battles/apps.py).
CACHES["fragments"] = {
    "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
    "LOCATION": "fragments",
    "TIMEOUT": None,
    "OPTIONS": {"MAX_ENTRIES": 2000},
}
# django-ratelimit's W001 says only that these backends are not on its short list. Both
# increment atomically across processes (Redis by INCRBY; the database cache by holding
# the row, memeyori_site/cache.py), which tests/test_settings.py shows with several
# processes counting at once; so `check --deploy --fail-level WARNING` passes (18.11).
SILENCED_SYSTEM_CHECKS = ["django_ratelimit.W001"]
# Pushed live updates (memeyori_site/live.py) travel by Redis publish/subscribe when
# REDIS_URL is set, else by counters in this cache; channel names start with this.
LIVE_CHANNEL_PREFIX = CACHE_KEY_PREFIX or "memeyori"
# The client's address for rate limits and the one-render-in-flight rule: REMOTE_ADDR, or
# the X-Forwarded-For entry added by the proxies named here (addresses or networks, comma
# separated), and never a header a client could send itself. See memeyori_site/ratelimit.py.
TRUSTED_PROXIES = envlist("DJANGO_TRUSTED_PROXIES")
for _proxy in TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_proxy, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"DJANGO_TRUSTED_PROXIES must list IP addresses or networks; got {_proxy!r}"
        ) from None
RATELIMIT_IP_META_KEY = "memeyori_site.ratelimit.client_ip"
RATELIMIT_ENABLE = envbool("DJANGO_RATELIMIT_ENABLE", True)
# URL name -> (rate, HTTP methods counted). Keyed by client IP; see memeyori_site/ratelimit.py.
# HEAD costs what GET does (the same view runs), so it is counted with it.
RATE_LIMITS = {
    "login": ("10/m", {"POST"}),
    "signup": ("5/m", {"POST"}),
    "password_change": ("10/m", {"POST"}),
    "password_reset": ("5/m", {"POST"}),
    "password_reset_confirm": ("10/m", {"POST"}),
    "battle_new": ("20/m", {"POST"}),
    "import": ("20/m", {"POST"}),
    "import_confirm": ("20/m", {"POST"}),
    "character_duplicate": ("20/m", {"POST"}),
    # A visitor's "save" stashes the draft in their session (issue 18.3); previews too.
    "builder_new": ("30/m", {"POST"}),
    "print_page": ("30/m", {"GET", "HEAD"}),
    "print_sheet": ("10/m", {"GET", "HEAD"}),
    "table_print": ("10/m", {"GET", "HEAD"}),
    "print_mastercard": ("30/m", {"GET", "HEAD"}),
    "print_share_png": ("30/m", {"GET", "HEAD"}),
    "battle_og": ("60/m", {"GET", "HEAD"}),
    # A follower polls every 0.8 s (75 a minute) when no stream can be held; a group in
    # one room shares an address, so this is a few phones' worth (issue 18.10). A stream
    # is opened once per follower, and again only when it breaks.
    "battle_presented": ("300/m", {"GET", "HEAD"}),
    "battle_presented_stream": ("30/m", {"GET", "HEAD"}),
    # The same for a played game's presentation (battles/play/presenting.py).
    "play_presented": ("300/m", {"GET", "HEAD"}),
    "play_presented_stream": ("30/m", {"GET", "HEAD"}),
    "battle_shared_og": ("60/m", {"GET", "HEAD"}),
    # Not a URL: any POST carrying a portrait file, on whichever page (ratelimit.py).
    "portrait_upload": ("10/m", {"POST"}),
    # A lab is up to 200,000 battles; opening one of its battles runs it with a full log.
    "lab_new": ("5/m", {"POST"}),
    "lab_what_if": ("5/m", {"POST"}),
    "lab_resume": ("5/m", {"POST"}),
    "lab_open": ("30/m", {"GET", "HEAD", "POST"}),
    "lab_shared_open": ("30/m", {"GET", "HEAD"}),
    # Played games (issue 31): starting one, and reading one (each read replays the game's
    # record); a plan page polls its status every few seconds and a viewer steps often, so
    # these leave a group's play untouched and stop a loop.
    "play_new": ("10/m", {"POST"}),
    "play_table_new": ("10/m", {"POST"}),
    "play_join": ("10/m", {"POST"}),
    "play_plan": ("60/m", {"POST"}),
    "play_game": ("120/m", {"GET", "HEAD"}),
    "play_watch": ("120/m", {"GET", "HEAD"}),
    "play_state": ("120/m", {"GET", "HEAD"}),
    "play_shared": ("120/m", {"GET", "HEAD"}),
    "play_shared_state": ("120/m", {"GET", "HEAD"}),
}
# These are counted in sliding windows (no edge lets twice the rate through) and per each
# key named: the client's address, and the account a log-in names, so that many addresses
# do not add up to more guesses at one account (issue 33.7; memeyori_site/ratelimit.py).
SLIDING_RATE_LIMITS = {"login": ("ip", "account")}

# Background work (PDF and PNG renders, portraits, lab chunks) runs as django.tasks tasks.
# By default they wait in this project's own database (SQLite or PostgreSQL) for
# `manage.py db_worker` processes, which claim them with row locks (SKIP LOCKED on
# PostgreSQL), so any number of workers on any number of machines can share the queues.
# Two queues (cards/workers.py): "interactive" (what a person waits for) and "bulk" (lab
# chunks, upkeep); interactive tasks also have the higher priority. DJANGO_TASKS_IMMEDIATE=1
# runs each task inside the request that enqueues it, with no worker (the test suite does).
TASK_QUEUES = ["interactive", "bulk"]
IMMEDIATE_TASKS = {
    "BACKEND": "django.tasks.backends.immediate.ImmediateBackend",
    "QUEUES": TASK_QUEUES,
}
DATABASE_TASKS = {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": TASK_QUEUES}
TASKS = {"default": IMMEDIATE_TASKS if envbool("DJANGO_TASKS_IMMEDIATE", False) else DATABASE_TASKS}
# Each worker beats this often; one silent for WORKER_DEAD_SECONDS is taken for dead and
# the tasks it was running go back in the queue (cards/workers.py).
WORKER_BEAT_SECONDS = envfloat("DJANGO_WORKER_BEAT_SECONDS", 5)
WORKER_DEAD_SECONDS = envfloat("DJANGO_WORKER_DEAD_SECONDS", 30)
# Renders (cards/printing/store.py): at most this many in flight (waiting or rendering)
# before asking for a new one is refused (503); their outputs are kept under this many bytes.
RENDER_QUEUE_MAX = envint("DJANGO_RENDER_QUEUE_MAX", 20)
RENDER_STORE_MAX_BYTES = envint("DJANGO_RENDER_STORE_MB", 500) * 1024 * 1024
# One render's time limit in seconds, and how many processes one render may use.
PRINT_RENDER_TIMEOUT = envint("DJANGO_RENDER_TIMEOUT", 30)
PRINT_RENDER_WORKERS = envint("DJANGO_RENDER_PROCESSES", 2)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Password-reset mail. With debug on it is printed to the console (make run); a
# deployment sets EMAIL_URL, e.g. smtp://user:password@mail.example.org:587/?tls=1.
MAILERS = {"default": envmailer("EMAIL_URL", "console://" if DEBUG else "smtp://localhost:25")}
if os.environ.get("EMAIL_URL", "").partition(":")[0] in EMAIL_BACKENDS.keys() - {"smtp", "smtps"}:
    # Asked for by name (mail kept in files on a test deployment, say): Django's deploy
    # check would refuse it as development-only (mail.E001), though the README offers it.
    SILENCED_SYSTEM_CHECKS.append("mail.E001")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Memeyori <noreply@localhost>")
PASSWORD_RESET_TIMEOUT = envint("PASSWORD_RESET_TIMEOUT", 60 * 60 * 24)

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# `make serve` collects static files and turns this on, so file names carry their hash
# and whitenoise can let browsers cache them forever. Off elsewhere: no collectstatic needed.
STATIC_MANIFEST = envbool("DJANGO_STATIC_MANIFEST", False)
# Without collected files, whitenoise serves straight from the app and project folders.
STATIC_ROOT = (
    Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
    if STATIC_MANIFEST
    else None
)
WHITENOISE_USE_FINDERS = not STATIC_MANIFEST
# Uploaded and derived media (portraits, party back images) go through this storage only,
# never a path (cards/media.py): a folder (the default), or an S3-compatible object store
# that every web process and task worker on every machine shares.
MEDIA_STORAGE = os.environ.get("DJANGO_MEDIA_STORAGE", "filesystem")
# "site": files are served by the site's own views, which apply each character's
# visibility (and the store can stay private); "signed": those views check visibility,
# then redirect to a signed URL of the object store that expires after MEDIA_URL_EXPIRY s.
# Signed by default with an object store (issue 33.2): a web worker's one page thread then
# never streams a file from the store, nor waits on it.
MEDIA_SERVE = os.environ.get("DJANGO_MEDIA_SERVE") or (
    "signed" if MEDIA_STORAGE == "s3" else "site"
)
MEDIA_URL_EXPIRY = envint("DJANGO_S3_URL_EXPIRY", 300)
if MEDIA_SERVE not in ("site", "signed"):
    raise ImproperlyConfigured(f"DJANGO_MEDIA_SERVE must be site or signed; got {MEDIA_SERVE!r}")
if MEDIA_STORAGE == "filesystem":
    if MEDIA_SERVE == "signed":
        raise ImproperlyConfigured("DJANGO_MEDIA_SERVE=signed needs DJANGO_MEDIA_STORAGE=s3")
    MEDIA_BACKEND = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
elif MEDIA_STORAGE == "s3":
    if not os.environ.get("DJANGO_S3_BUCKET"):
        raise ImproperlyConfigured("DJANGO_MEDIA_STORAGE=s3 needs DJANGO_S3_BUCKET")
    S3_ENDPOINT_URL = os.environ.get("DJANGO_S3_ENDPOINT_URL") or None
    from botocore.config import Config as S3Config

    # A stalled store fails a call within seconds instead of boto3's minute a read and
    # retries (issue 33.2): at most S3_ATTEMPTS tries, each waiting at most these long.
    S3_CONNECT_TIMEOUT = envfloat("DJANGO_S3_CONNECT_TIMEOUT", 2)
    S3_READ_TIMEOUT = envfloat("DJANGO_S3_READ_TIMEOUT", 3)
    S3_ATTEMPTS = envint("DJANGO_S3_ATTEMPTS", 2)
    MEDIA_BACKEND = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": os.environ["DJANGO_S3_BUCKET"],
            "endpoint_url": S3_ENDPOINT_URL,
            "region_name": os.environ.get("DJANGO_S3_REGION") or None,
            # Unset: boto3 finds credentials itself (an instance role, ~/.aws).
            "access_key": os.environ.get("DJANGO_S3_ACCESS_KEY_ID") or None,
            "secret_key": os.environ.get("DJANGO_S3_SECRET_ACCESS_KEY") or None,
            # Objects are private; only signed URLs (when MEDIA_SERVE is signed) open them.
            "default_acl": None,
            "querystring_auth": True,
            "querystring_expire": MEDIA_URL_EXPIRY,
            # A name once written is never written again (cards/media.py relies on it).
            "file_overwrite": False,
            "client_config": S3Config(
                # Endpoints given by address (MinIO, a test server) take the bucket in the
                # path; signed URLs in the current scheme (SigV4), which every region takes.
                s3={"addressing_style": "path" if S3_ENDPOINT_URL else None},
                signature_version="s3v4",
                connect_timeout=S3_CONNECT_TIMEOUT,
                read_timeout=S3_READ_TIMEOUT,
                retries={"mode": "standard", "total_max_attempts": S3_ATTEMPTS},
            ),
        },
    }
    if MEDIA_SERVE == "signed":
        from urllib.parse import urlsplit

        _origin = urlsplit(S3_ENDPOINT_URL) if S3_ENDPOINT_URL else None
        SECURE_CSP["img-src"].append(
            f"{_origin.scheme}://{_origin.netloc}"
            if _origin
            else f"https://{os.environ['DJANGO_S3_BUCKET']}.s3.amazonaws.com"
        )
else:
    raise ImproperlyConfigured(
        f"DJANGO_MEDIA_STORAGE must be filesystem or s3; got {MEDIA_STORAGE!r}"
    )
STORAGES = {
    "default": MEDIA_BACKEND,
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if STATIC_MANIFEST
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "media/"
MEDIA_ROOT = Path(os.environ.get("DJANGO_MEDIA_ROOT", BASE_DIR / "media"))

# What one person may own (issue 18.4): every create counts against these under a lock on
# the person's row (cards.services.reserve). A maximum import (100 characters, 1,000
# cards, 20 parties) fits five times over. Portraits are bounded with the characters: a
# duplicate or copy shares its original's files, so each character holds at most one
# upload's files (issue 18.5).
PERSON_BOUNDS = {
    "characters": envint("DJANGO_MAX_CHARACTERS", 500),
    "cards": envint("DJANGO_MAX_CARDS", 10_000),
    "parties": envint("DJANGO_MAX_PARTIES", 100),
}

# Every request body has a hard size, refused with a 413 before anything reads it
# (memeyori_site/bodies.py): BODY_MAX_BYTES, or BODY_UPLOAD_MAX_BYTES for the URLs that take
# a file (a portrait or back image of at most 10 MB, an import of at most 1 MB, with the
# form's other fields). A proxy in front should refuse the same (README, Deployment).
BODY_MAX_BYTES = envint("DJANGO_BODY_MAX_KB", 1024) * 1024
BODY_UPLOAD_MAX_BYTES = envint("DJANGO_UPLOAD_BODY_MAX_KB", 11 * 1024) * 1024
BODY_UPLOAD_URLS = frozenset(
    {"builder_new", "character_edit", "party_new", "party_edit", "print_portrait"}
    | {"import", "import_confirm"}
)
# An uploaded file is kept in memory up to the portrait limit and one byte, never on disk.
FILE_KEEP_MAX_BYTES = 10 * 1024 * 1024
FILE_UPLOAD_HANDLERS = ["memeyori_site.bodies.CappedUploadHandler"]
DATA_UPLOAD_MAX_MEMORY_SIZE = BODY_UPLOAD_MAX_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = BODY_UPLOAD_MAX_BYTES

if not DEBUG:
    # A TLS-terminating proxy in front may turn the redirect off and say so by header.
    SECURE_SSL_REDIRECT = envbool("DJANGO_SECURE_SSL_REDIRECT", True)
    if envbool("DJANGO_TRUST_X_FORWARDED_PROTO", False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = envbool("DJANGO_SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = envbool("DJANGO_SECURE_COOKIES", True)
    SECURE_HSTS_SECONDS = envint("DJANGO_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = envbool("DJANGO_HSTS_PRELOAD", True)
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "WARNING")},
}
