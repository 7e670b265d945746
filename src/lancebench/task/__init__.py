"""Tasks in Harbor's folder layout: the model, loading and validation."""

from lancebench.task.load import discover_task_dirs, load_task, load_tasks
from lancebench.task.model import Task, TaskConfig, TaskPaths

__all__ = ["Task", "TaskConfig", "TaskPaths", "discover_task_dirs", "load_task", "load_tasks"]
