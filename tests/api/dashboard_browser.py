"""The browser half of the dashboard's browser tests (tests/api/dashboard_browser*.rs).

A thin bridge, not a test: it opens one headless Chromium session through the chromedriver the
Rust test started (argv: driver URL, Chromium binary, profile directory), then reads one JSON
command per line on stdin and answers one JSON line on stdout, `{"ok": value}` or
`{"error": "..."}`. The Rust test decides what to do and asserts; between two commands it calls
the gateway's API and runs its workers, which a script alone could not interleave.

Standard library and Selenium only (scripts/selenium-venv.sh installs the pinned version).
Selenium connects to the running chromedriver (webdriver.Remote): Selenium Manager, which would
look for drivers on the network, is never started.
"""

import json
import sys

from selenium import webdriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

# Without the background-networking flags Chromium tries the network at start and fails; the
# resolver rule keeps every name but 127.0.0.1 unresolvable, so a page cannot reach elsewhere.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Containers often have a small /dev/shm, where Chromium's renderers would crash.
    "--disable-dev-shm-usage",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--window-size=1280,900",
]

# What the focused element is, as the keyboard test names it: its name, else its id.
ACTIVE = "const e = document.activeElement; return e ? (e.name || e.id || e.tagName) : null;"
# The HTTP status of the page's own navigation (Navigation Timing level 2, Chromium >= 109).
STATUS = "const n = performance.getEntriesByType('navigation')[0]; return n ? n.responseStatus : null;"


def first(driver, css):
    found = driver.find_elements(By.CSS_SELECTOR, css)
    return found[0] if found else None


def run(driver, cmd):
    op = cmd["op"]
    if op == "goto":
        driver.get(cmd["url"])
        return None
    if op == "url":
        return driver.current_url
    if op == "status":
        return driver.execute_script(STATUS)
    if op == "text":
        element = first(driver, cmd["css"])
        return None if element is None else element.text
    if op == "texts":
        return [e.text for e in driver.find_elements(By.CSS_SELECTOR, cmd["css"])]
    if op == "attr":
        element = first(driver, cmd["css"])
        return None if element is None else element.get_attribute(cmd["name"])
    if op == "count":
        return len(driver.find_elements(By.CSS_SELECTOR, cmd["css"]))
    if op == "click":
        driver.find_element(By.CSS_SELECTOR, cmd["css"]).click()
        return None
    if op == "type":
        element = driver.find_element(By.CSS_SELECTOR, cmd["css"])
        element.clear()
        element.send_keys(cmd["text"])
        return None
    if op == "script":
        return driver.execute_script(cmd["js"])
    if op == "tab":
        ActionChains(driver).send_keys(Keys.TAB).perform()
        return driver.execute_script(ACTIVE)
    if op == "keys":
        # Typed on the keyboard, into whatever has the focus (Enter is "\ue007").
        ActionChains(driver).send_keys(cmd["text"]).perform()
        return None
    if op == "window":
        driver.set_window_size(cmd["width"], cmd["height"])
        return None
    if op == "screenshot":
        if not driver.save_screenshot(cmd["path"]):
            raise RuntimeError("the screenshot was not written to " + cmd["path"])
        return None
    if op == "cookies":
        return driver.get_cookies()
    raise ValueError("unknown op " + op)


def main():
    driver_url, binary, profile = sys.argv[1:4]
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument("--user-data-dir=" + profile)
    driver = webdriver.Remote(command_executor=driver_url, options=options)
    try:
        print(json.dumps({"ok": "ready"}), flush=True)
        for line in sys.stdin:
            try:
                reply = {"ok": run(driver, json.loads(line))}
            except Exception as e:  # the Rust side fails the test with this text
                reply = {"error": f"{type(e).__name__}: {e}"}
            print(json.dumps(reply), flush=True)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
