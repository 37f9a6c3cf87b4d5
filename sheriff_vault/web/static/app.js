// Sheriff Vault memory browser: a history entry loads its diff when opened; nothing else needs script.
document.addEventListener("toggle", async (event) => {
  const el = event.target;
  if (!(el instanceof HTMLDetailsElement) || !el.open || !el.dataset.src || el.dataset.loaded) return;
  el.dataset.loaded = "1";
  const slot = el.querySelector(".diff-slot");
  try {
    const response = await fetch(el.dataset.src, { credentials: "same-origin" });
    if (!response.ok) throw new Error(response.status + " " + response.statusText);
    slot.innerHTML = await response.text();
    slot.classList.add("loaded");
  } catch (err) {
    slot.insertAdjacentText("beforeend", " (could not load the diff: " + err.message + ")");
  }
}, true);
document.addEventListener("change", (event) => {
  // Changing the sort submits the filter form at once.
  if (event.target && event.target.id === "sort") event.target.form.submit();
});
