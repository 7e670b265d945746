"""Task validation the way SWE-bench and SWE-Lancer validate theirs (``lancebench check``)."""
