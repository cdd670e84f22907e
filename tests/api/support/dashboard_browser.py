"""The browser half of the dashboard's browser tests (tests/api/dashboard_browser_*.rs).

A thin bridge, not a test: it opens one headless Chromium session through the chromedriver the
Rust test started (argv: driver URL, Chromium binary, profile directory), then reads one JSON
command per line on stdin and answers one JSON line on stdout, `{"ok": value}` or
`{"error": "..."}`. The Rust test decides what to do and asserts; between two commands it calls
the gateway's API and runs its workers, which a script alone could not interleave.

Standard library and Selenium only (scripts/selenium-venv.sh installs the pinned version).
Selenium connects to the running chromedriver (webdriver.Remote): Selenium Manager, which would
look for drivers on the network, is never started.
"""

import base64
import json
import sys

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException
from selenium.webdriver.chromium.remote_connection import ChromiumRemoteConnection
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.file_detector import UselessFileDetector
from selenium.webdriver.support.wait import WebDriverWait

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


# What chromedriver sometimes answers, on a busy machine, when asked about a node of a page
# that is being replaced: rather than "stale element", "does not belong to the document".
LOST_NODE = "does not belong to the document"


def lost_node(e):
    return LOST_NODE in (e.msg or "")


def gone(old):
    """A wait condition: the page whose root element is `old` has been replaced."""

    def check(driver):
        try:
            old.is_enabled()
            return False
        except StaleElementReferenceException:
            return True
        except WebDriverException as e:
            if lost_node(e):
                return True
            raise

    return check


def loaded(driver, old):
    """Waits until `old`'s page has gone and the next one has loaded: WebDriver does not wait
    for a navigation that a click or a key started."""
    wait = WebDriverWait(driver, 15)
    wait.until(gone(old))
    wait.until(lambda d: d.execute_script("return document.readyState") == "complete")


def click_and_wait(driver, css):
    """Clicks the element at `css`, a link or a form's button, and returns once the next page
    has loaded. A click refused with LOST_NODE is tried again (up to three times) only when the
    page stayed, so that a click that did happen is never repeated."""
    old = driver.find_element(By.TAG_NAME, "html")
    for _ in range(3):
        try:
            driver.find_element(By.CSS_SELECTOR, css).click()
            break
        except WebDriverException as e:
            if not lost_node(e):
                raise
            try:
                WebDriverWait(driver, 2).until(gone(old))
                break
            except TimeoutException:
                continue
    else:
        raise RuntimeError(f"chromedriver lost the node of {css} three times")
    loaded(driver, old)


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
        click_and_wait(driver, cmd["css"])
        return None
    if op == "type":
        element = driver.find_element(By.CSS_SELECTOR, cmd["css"])
        element.clear()
        element.send_keys(cmd["text"])
        return None
    if op == "upload":
        # A file input takes the file's path as typed keys. The driver runs on this machine,
        # so the path is read where it is: no upload to a grid (Selenium's LocalFileDetector).
        driver.file_detector = UselessFileDetector()
        driver.find_element(By.CSS_SELECTOR, cmd["css"]).send_keys(cmd["path"])
        return None
    if op == "script":
        return driver.execute_script(cmd["js"])
    if op == "tab":
        ActionChains(driver).send_keys(Keys.TAB).perform()
        return driver.execute_script(ACTIVE)
    if op == "keys":
        # Typed on the keyboard, into whatever has the focus.
        ActionChains(driver).send_keys(cmd["text"]).perform()
        return None
    if op == "enter":
        old = driver.find_element(By.TAG_NAME, "html")
        ActionChains(driver).send_keys(Keys.ENTER).perform()
        loaded(driver, old)
        return None
    if op == "window":
        driver.set_window_size(cmd["width"], cmd["height"])
        return None
    if op == "screenshot":
        # The whole page, not only the window (up to 3000 px high), through Chromium's DevTools.
        width, height = driver.execute_script(
            "return [window.innerWidth, document.documentElement.scrollHeight];"
        )
        clip = {"x": 0, "y": 0, "width": width, "height": min(height, 3000), "scale": 1}
        params = {"format": "png", "captureBeyondViewport": True, "clip": clip}
        shot = driver.execute("executeCdpCommand", {"cmd": "Page.captureScreenshot", "params": params})
        with open(cmd["path"], "wb") as out:
            out.write(base64.b64decode(shot["value"]["data"]))
        return None
    if op == "cookies":
        return driver.get_cookies()
    raise ValueError("unknown op " + op)


def answer(driver, cmd):
    """The reply to one command; the Rust side fails the test with an error's text."""
    try:
        return {"ok": run(driver, cmd)}
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}


def main():
    driver_url, binary, profile = sys.argv[1:4]
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument("--user-data-dir=" + profile)
    # Chromium's connection knows its DevTools command (screenshots of whole pages); no proxy
    # from the environment stands between the test and its chromedriver.
    connection = ChromiumRemoteConnection(
        remote_server_addr=driver_url, vendor_prefix="goog", browser_name="chrome", ignore_proxy=True
    )
    driver = webdriver.Remote(command_executor=connection, options=options)
    try:
        print(json.dumps({"ok": "ready"}), flush=True)
        for line in sys.stdin:
            reply = answer(driver, json.loads(line))
            print(json.dumps(reply), flush=True)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
