// Keys: y faithful, n not faithful, s skip, u undo, j next, k previous. Not while typing.
document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (event.ctrlKey || event.metaKey || event.altKey) { return; }
  if (target instanceof HTMLTextAreaElement
      || (target instanceof HTMLInputElement && target.type !== "checkbox")) { return; }
  const click = (id) => {
    const element = document.getElementById(id);
    if (element) { event.preventDefault(); element.click(); }
  };
  switch (event.key) {
    case "y": click("yes"); break;
    case "n": click("no"); break;
    case "s": click("skip"); break;
    case "j": click("next"); break;
    case "k": click("prev"); break;
    case "u": {
      const form = document.getElementById("undo");
      if (form) { event.preventDefault(); form.requestSubmit(); }
      break;
    }
    default: break;
  }
});
