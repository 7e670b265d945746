"""Job and trial orchestration, the results store, resume and executors."""
