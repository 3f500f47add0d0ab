import { describe, expect, it } from "vitest";
import { refusedNotice } from "../../src/messages/index.js";

const s = {
  profileId: "x2vq8nw",
  channelId: "C0NEWS",
  videoId: "x8vid",
  title: { title: "<!channel> *News*" },
};

describe("refusedNotice (the managers' notice of notifications Slack refused)", () => {
  it("names the profile, channel and video, with the title escaped, and says what to do per code", () => {
    const text = refusedNotice(s, "not_in_channel");
    expect(text).toMatch(/^⚠️ I could not post the notifications of profile `x2vq8nw` in <#C0NEWS>/);
    expect(text).toContain("(video “&lt;!channel&gt; *News*” `x8vid`)");
    expect(text).not.toContain("<!channel>");
    expect(text).toContain("Invite me to the channel");
    expect(refusedNotice(s, "is_archived")).toContain("The channel is archived");
    expect(refusedNotice(s, "channel_not_found")).toContain("The channel no longer exists");
    expect(refusedNotice(s, "invalid_blocks")).toContain("New events will be tried again");
  });

  it("without a video, or without a title", () => {
    expect(refusedNotice({ ...s, videoId: null }, "is_archived")).toContain("in <#C0NEWS>: Slack said");
    expect(refusedNotice({ ...s, title: { unknown: "timeout" } }, "is_archived")).toContain(
      "(video `x8vid`)",
    );
  });
});
