#!/usr/bin/python3
"""Lists a node's storages and one storage's content through python3-proxmoxer, unchanged, as a
script written for Proxmox VE would; prints what it got as one JSON object (ServeTest compares it
with vsm status and vsm list).

usage: proxmoxer-list.py PORT CERTIFICATE USER@REALM TOKENID SECRET STORAGE
"""
import json
import sys

from proxmoxer import ProxmoxAPI

port, certificate, user, token_name, secret, storage = sys.argv[1:7]
api = ProxmoxAPI("127.0.0.1", port=port, user=user, token_name=token_name, token_value=secret,
                 verify_ssl=certificate, service="PVE", timeout=30)
nodes = api.nodes.get()
node = nodes[0]["node"]
print(json.dumps({
    "version": api.version.get(),
    "nodes": nodes,
    "storages": api.nodes(node).storage.get(),
    "content": api.nodes(node).storage(storage).content.get(),
    "status": api.nodes(node).storage(storage).status.get(),
}))
