#!/usr/bin/python3
# Parses Prometheus text (stdin) with the prometheus_client package's own parser (Debian's
# python3-prometheus-client) and prints the samples as JSON: [[name, labels, value], ...].
# Any line the parser refuses makes it exit non-zero with the parser's error.
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

samples = []
families = {}
for family in text_string_to_metric_families(sys.stdin.read()):
    families[family.name] = family.type
    for s in family.samples:
        samples.append([s.name, s.labels, s.value])
json.dump({"families": families, "samples": samples}, sys.stdout)
