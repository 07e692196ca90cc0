document.querySelectorAll('.cookie-banner button').forEach(b=>b.onclick=()=>b.parentElement.remove());
