"""The soak's topics and group, on its own cluster."""

JOBS, EVENTS, DLQ, MESSAGES, GROUP = "soak.jobs", "soak.events", "soak.dlq", "soak.messages", "soak"
