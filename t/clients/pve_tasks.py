"""What the client scripts share: waiting for a task, as a script written for Proxmox VE waits."""
import sys
import time


def wait(api, node, upid):
    """Waits for a task to end, as pve's frees run in the background, and fails unless it ended well."""
    while True:
        status = api.nodes(node).tasks(upid).status.get()
        if status["status"] == "stopped":
            if status["exitstatus"] != "OK":
                sys.exit("task %s: %s" % (upid, status["exitstatus"]))
            return
        time.sleep(0.2)
