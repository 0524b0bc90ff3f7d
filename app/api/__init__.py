"""The HTTP edge: `create_app(settings)` and one router per resource in `app/api/routes/`."""

from app.api.main import Services, create_app

__all__ = ["Services", "create_app"]
