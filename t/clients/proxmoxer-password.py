#!/usr/bin/python3
"""Logs in with a password through python3-proxmoxer, unchanged, as a script written for Proxmox VE
would, then lists a storage's content, allocates a disk and frees it, waiting for the free's task
(changes that need the CSRF token proxmoxer sends with the ticket); prints what it got as one JSON
object.

usage: proxmoxer-password.py PORT CERTIFICATE USER@REALM PASSWORD STORAGE VMID
"""
import json
import sys

from proxmoxer import ProxmoxAPI

from pve_tasks import wait


port, certificate, user, password, storage, vmid = sys.argv[1:7]
api = ProxmoxAPI("127.0.0.1", port=port, user=user, password=password,
                 verify_ssl=certificate, service="PVE", timeout=30)
node = api.nodes.get()[0]["node"]
content = api.nodes(node).storage(storage).content
volid = content.post(vmid=vmid, filename="vm-%s-disk-0.raw" % vmid, size="1M")
listed = [v["volid"] for v in content.get()]
wait(api, node, content(volid).delete())
print(json.dumps({
    "volid": volid,
    "listed": listed,
    "after": [v["volid"] for v in content.get()],
}))
