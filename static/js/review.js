// The dispute review page: the match's own replay page runs in the frame; once it is ready,
// step it to the turn the player named and scroll past the site header.
const frame = document.getElementById("replay-frame");

function goToTurn() {
  const doc = frame.contentDocument;
  if (!doc) return;
  const title = doc.querySelector(".replay-title");
  // Scroll the frame only (scrollIntoView would scroll this page too).
  if (title) frame.contentWindow.scrollTo(0, title.getBoundingClientRect().top + frame.contentWindow.scrollY - 8);
  const turn = frame.dataset.turn;
  const jump = doc.getElementById("jump");
  if (!turn || !jump) return;
  jump.value = turn;
  jump.dispatchEvent(new Event("change"));
}

if (frame) {
  frame.addEventListener("load", () => {
    // The replay module runs after the document loads; wait until its slider is set up.
    const doc = frame.contentDocument;
    const ready = () => doc && doc.getElementById("slider") && Number(doc.getElementById("slider").max) > 0;
    let tries = 0;
    const wait = () => {
      if (ready() || tries > 50) goToTurn();
      else {
        tries += 1;
        setTimeout(wait, 100);
      }
    };
    wait();
  });
}
