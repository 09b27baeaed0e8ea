"""What the tests against the S3 API server on loopback share."""

#: Dummy credentials of the S3 API server on loopback (moto accepts any).
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}
