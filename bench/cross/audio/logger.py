import numpy as np

from audio import arrays


class AudioLogger:
    def __init__(self, writer, rate):
        self.writer = writer
        self.rate = rate

    def log_clip(self, tag, wave, step):
        samples = arrays.to_host(wave)
        samples /= np.abs(samples).max() + 1e-8
        samples *= 0.9
        self.writer.add_audio(tag, samples, step, sample_rate=self.rate)

    def log_clip_safely(self, tag, wave, step):
        samples = arrays.to_host_copy(wave)
        samples /= np.abs(samples).max() + 1e-8
        self.writer.add_audio(tag, samples, step, sample_rate=self.rate)
