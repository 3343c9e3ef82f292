#!/usr/bin/python3
"""Drives vsm serve's copy of a volume through python3-proxmoxer, unchanged, as a script written
for Proxmox VE would: copies a volume to a new volume of the same storage, reads the task's status
and log, finds it in the node's task list, lists the storage's images; prints what it got as one
JSON object.

usage: proxmoxer-copy.py PORT CERTIFICATE USER@REALM TOKENID SECRET STORAGE VOLUME TARGET
"""
import json
import sys

from proxmoxer import ProxmoxAPI

port, certificate, user, token, secret, storage, volume, target = sys.argv[1:9]
api = ProxmoxAPI("127.0.0.1", port=port, user=user, token_name=token, token_value=secret,
                 verify_ssl=certificate, service="PVE", timeout=30)
node = api.nodes.get()[0]["node"]
upid = api.nodes(node).storage(storage).content(volume).post(target=target)
task = api.nodes(node).tasks(upid).status.get()
log = [line["t"] for line in api.nodes(node).tasks(upid).log.get()]
print(json.dumps({
    "upid": upid,
    "task": task,
    "log": log,
    "tasks": [t["upid"] for t in api.nodes(node).tasks.get(typefilter="imgcopy")],
    "listed": [v["volid"] for v in api.nodes(node).storage(storage).content.get(content="images")],
}))
