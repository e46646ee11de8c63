"""SandboxFusion's FastAPI app; here only a name for TestClient, which posts to the service under test."""
app = None
