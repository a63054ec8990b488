"""Read-only access to the repository under review: revisions, snapshots, the change, and where the project imports from."""
