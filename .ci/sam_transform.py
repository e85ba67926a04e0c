"""Runs SAM's own transform (aws-sam-translator, what CloudFormation runs on
deploy) over template.yaml, offline: the errors only a deploy would show
(an unsupported event property, a bad reference), and a count of the
resources it makes. Usage: python sam_transform.py template.yaml"""

import os
import sys

from samtranslator.public.exceptions import InvalidDocumentException
from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse

# The managed policies SAM attaches by name; their ARNs are fixed.
MANAGED_POLICIES = {
    name: f"arn:aws:iam::aws:policy/{path}{name}"
    for path, name in [
        ("service-role/", "AWSLambdaBasicExecutionRole"),
        ("", "AWSXrayWriteOnlyAccess"),
        ("service-role/", "AWSLambdaSQSQueueExecutionRole"),
        ("service-role/", "AWSLambdaDynamoDBExecutionRole"),
        ("service-role/", "AWSCodeDeployRoleForLambda"),
        ("service-role/", "AWSCodeDeployRoleForLambdaLimited"),
    ]
}

os.environ.setdefault("AWS_DEFAULT_REGION", "eu-west-1")
with open(sys.argv[1], encoding="utf-8") as f:
    template = yaml_parse(f.read())
# `sam build` replaces the local code path with the uploaded artifact's.
template["Globals"]["Function"]["CodeUri"] = "s3://artifacts/bootstrap.zip"
try:
    resources = transform(template, MANAGED_POLICIES, {})["Resources"]
except InvalidDocumentException as e:
    for cause in e.causes:
        print(f"SAM transform: {cause.message}", file=sys.stderr)
    sys.exit(1)
print(f"SAM transform: {len(resources)} CloudFormation resources")
