// The camera as the Run input: getUserMedia's errors in words a person can act on, and the
// stream's frames copied onto a canvas (the page's image input) one at a time, as fast as the
// model runs (a frame is taken only when the previous result is drawn, so nothing queues up).

// A getUserMedia failure (a DOMException by name, or the page's own 'NoMediaDevices' when the
// browser offers no camera API here) -> {kind, text}.
export function cameraError(e) {
  switch (e?.name) {
    case 'NotAllowedError':
    case 'PermissionDeniedError':
    case 'SecurityError':
      return { kind: 'denied', text: 'Camera access was denied. Allow the camera for this page in the browser (the icon in the address bar, or site settings), then press Camera again.' };
    case 'NotFoundError':
    case 'DevicesNotFoundError':
    case 'OverconstrainedError':
      return { kind: 'none', text: 'No camera was found. Connect one and press Camera again, or use an image.' };
    case 'NotReadableError':
    case 'TrackStartError':
    case 'AbortError':
      return { kind: 'busy', text: 'The camera could not start: another app may be using it. Close that app and press Camera again.' };
    case 'NoMediaDevices':
      return { kind: 'unsupported', text: 'This browser gives no camera access to this page (it needs HTTPS or localhost, and a browser with getUserMedia).' };
    default:
      return { kind: 'other', text: `The camera could not start: ${e?.message || e?.name || String(e)}.` };
  }
}

// Opens the camera; resolves to {video, stream} once frames arrive, rejects with the browser's error.
export async function openCamera() {
  if (!globalThis.navigator?.mediaDevices?.getUserMedia) throw Object.assign(new Error('no getUserMedia'), { name: 'NoMediaDevices' });
  const stream = await navigator.mediaDevices.getUserMedia({ video: { width: { ideal: 640 }, height: { ideal: 480 }, facingMode: 'user' }, audio: false });
  const video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  video.srcObject = stream;
  try {
    await video.play();
    if (!video.videoWidth) await new Promise((resolve) => video.addEventListener('loadedmetadata', resolve, { once: true }));
  } catch (e) {
    for (const t of stream.getTracks()) t.stop();
    throw e;
  }
  return { video, stream };
}

// Copies the current frame onto `canvas` (resized to the frame).
export function grabFrame(video, canvas) {
  if (canvas.width !== video.videoWidth || canvas.height !== video.videoHeight) {
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
  }
  canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
}
